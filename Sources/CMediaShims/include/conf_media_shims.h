#ifndef CONF_MEDIA_SHIMS_H
#define CONF_MEDIA_SHIMS_H
// opus_encoder_ctl is variadic: one wrapper per request conf uses.
#include <opus/opus.h>

int conf_opus_set_bitrate(OpusEncoder *encoder, opus_int32 bitrate);
int conf_opus_set_inband_fec(OpusEncoder *encoder, int on);
int conf_opus_set_packet_loss_perc(OpusEncoder *encoder, int percent);
int conf_opus_set_dtx(OpusEncoder *encoder, int on);
int conf_opus_set_complexity(OpusEncoder *encoder, int complexity);
int conf_opus_set_signal_voice(OpusEncoder *encoder);

#endif
