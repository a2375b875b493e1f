#include "conf_media_shims.h"

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
