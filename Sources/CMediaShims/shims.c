#include "conf_media_shims.h"
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>

int conf_opus_set_bitrate(OpusEncoder *encoder, opus_int32 bitrate) {
    return opus_encoder_ctl(encoder, OPUS_SET_BITRATE(bitrate));
}

int conf_opus_set_inband_fec(OpusEncoder *encoder, int on) {
    return opus_encoder_ctl(encoder, OPUS_SET_INBAND_FEC(on));
}

int conf_opus_set_packet_loss_perc(OpusEncoder *encoder, int percent) {
    return opus_encoder_ctl(encoder, OPUS_SET_PACKET_LOSS_PERC(percent));
}

int conf_opus_set_dtx(OpusEncoder *encoder, int on) {
    return opus_encoder_ctl(encoder, OPUS_SET_DTX(on));
}

int conf_opus_set_complexity(OpusEncoder *encoder, int complexity) {
    return opus_encoder_ctl(encoder, OPUS_SET_COMPLEXITY(complexity));
}

int conf_opus_set_signal_voice(OpusEncoder *encoder) {
    return opus_encoder_ctl(encoder, OPUS_SET_SIGNAL(OPUS_SIGNAL_VOICE));
}

vpx_codec_err_t conf_vp8_encoder_init(vpx_codec_ctx_t *codec, const vpx_codec_enc_cfg_t *config) {
    return vpx_codec_enc_init(codec, vpx_codec_vp8_cx(), config, 0);
}

vpx_codec_err_t conf_vp8_decoder_init(vpx_codec_ctx_t *codec) {
    return vpx_codec_dec_init(codec, vpx_codec_vp8_dx(), NULL, 0);
}

vpx_codec_err_t conf_vp8_encoder_defaults(vpx_codec_enc_cfg_t *config) {
    return vpx_codec_enc_config_default(vpx_codec_vp8_cx(), config, 0);
}

vpx_codec_err_t conf_vp8_set_cpu_used(vpx_codec_ctx_t *codec, int value) {
    return vpx_codec_control(codec, VP8E_SET_CPUUSED, value);
}

vpx_codec_err_t conf_vp8_set_temporal_layer_id(vpx_codec_ctx_t *codec, int layer) {
    return vpx_codec_control(codec, VP8E_SET_TEMPORAL_LAYER_ID, layer);
}
