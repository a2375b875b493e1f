#ifndef CONF_V4L2_H
#define CONF_V4L2_H
// A small V4L2 capture layer (memory-mapped streaming I/O): ioctl is variadic and the VIDIOC_*
// requests are macros, so this is C. Threading: one owner thread.
#include <stddef.h>
#include <stdint.h>

typedef struct conf_v4l2 conf_v4l2;

enum { CONF_V4L2_YUYV = 1, CONF_V4L2_NV12 = 2, CONF_V4L2_I420 = 3, CONF_V4L2_MJPEG = 4 };

/// Opens `path`, picks `format` (a CONF_V4L2_* value; 0 for none in particular), else YUYV, NV12, YU12
/// or MJPEG (in that order), near `width`x`height` at `fps`, maps the buffers and starts streaming.
/// NULL on failure with a message in `error`.
conf_v4l2 *conf_v4l2_open(const char *path, int format, int width, int height, int fps, char *error, size_t error_size);

/// The device's file descriptor (readable when a frame is ready), the chosen format and size.
int conf_v4l2_fd(const conf_v4l2 *camera);
int conf_v4l2_format(const conf_v4l2 *camera);
int conf_v4l2_width(const conf_v4l2 *camera);
int conf_v4l2_height(const conf_v4l2 *camera);
size_t conf_v4l2_frame_size(const conf_v4l2 *camera);

/// Copies the next ready frame into `out` (at most `capacity` bytes) and gives its buffer back to
/// the driver. Returns the bytes copied, 0 when no frame is ready, -1 when the device failed
/// (it vanished: errno ENODEV).
long conf_v4l2_next(conf_v4l2 *camera, uint8_t *out, size_t capacity);

void conf_v4l2_close(conf_v4l2 *camera);

/// One way a camera can deliver pictures: a pixel format conf reads (CONF_V4L2_*), a size, and the
/// most frames a second it gives at that size (0 when the driver does not say).
typedef struct {
    int format;
    int width, height;
    int fps;
} conf_v4l2_mode;

enum { CONF_V4L2_MAX_MODES = 64 };

/// What `conf devices` says of a device, without streaming from it.
typedef struct {
    char name[33];  /* the driver's card name, NUL-terminated */
    int captures;   /* a video capture device with streaming I/O */
    int mode_count;
    conf_v4l2_mode modes[CONF_V4L2_MAX_MODES];
} conf_v4l2_description;

/// Fills `out` for `path`: its name, whether conf can capture from it, and its modes in the formats
/// conf reads (largest sizes first within a format, as the driver lists them). -1 with errno when it
/// cannot be opened or is not a V4L2 device.
int conf_v4l2_describe(const char *path, conf_v4l2_description *out);

#endif
