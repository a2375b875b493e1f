#ifndef CONF_MEDIA_SHIMS_H
#define CONF_MEDIA_SHIMS_H
// opus_encoder_ctl is variadic: one wrapper per request conf uses.
#include <opus/opus.h>
#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>

int conf_opus_set_bitrate(OpusEncoder *encoder, opus_int32 bitrate);
int conf_opus_set_inband_fec(OpusEncoder *encoder, int on);
int conf_opus_set_packet_loss_perc(OpusEncoder *encoder, int percent);
int conf_opus_set_dtx(OpusEncoder *encoder, int on);
int conf_opus_set_complexity(OpusEncoder *encoder, int complexity);
int conf_opus_set_signal_voice(OpusEncoder *encoder);

/// vpx_codec_enc_init / vpx_codec_dec_init for VP8: ABI-versioned macros.
vpx_codec_err_t conf_vp8_encoder_init(vpx_codec_ctx_t *codec, const vpx_codec_enc_cfg_t *config);
vpx_codec_err_t conf_vp8_decoder_init(vpx_codec_ctx_t *codec);
/// The default VP8 encoder configuration.
vpx_codec_err_t conf_vp8_encoder_defaults(vpx_codec_enc_cfg_t *config);
/// VP8E_SET_CPUUSED (a variadic control).
vpx_codec_err_t conf_vp8_set_cpu_used(vpx_codec_ctx_t *codec, int value);
/// VP8E_SET_TEMPORAL_LAYER_ID: the layer of the next frame (set before each encode).
vpx_codec_err_t conf_vp8_set_temporal_layer_id(vpx_codec_ctx_t *codec, int layer);

#endif
