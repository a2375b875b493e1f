/// ConfCall: the call engine, sans-IO. One engine per participant holds its peer connections:
/// the mesh's negotiation, each link's state machine (ICE control, DTLS, SRTP, RTCP, liveness,
/// restarts), the per-stream RTP units, data channels and the events a call reports.
///
/// Inputs carry `now`; outputs are queued and drained; the next deadline is an output too. No
/// threads, no clock, no sockets: ICE agents, codecs and devices live in the drivers above
/// (ConfDriver), DTLS, SRTP and SCTP are reached through protocols so tests may use real ones or fakes.
