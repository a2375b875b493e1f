#include "conf_v4l2.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define BUFFERS 4

struct conf_v4l2 {
    int fd;
    int format;
    int width, height;
    size_t frame_size;
    void *maps[BUFFERS];
    size_t lengths[BUFFERS];
    unsigned count;
};

static int xioctl(int fd, unsigned long request, void *argument) {
    int r;
    do { r = ioctl(fd, request, argument); } while (r < 0 && errno == EINTR);
    return r;
}

conf_v4l2 *conf_v4l2_open(const char *path, int preferred, int width, int height, int fps, char *error, size_t error_size) {
    int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(error, error_size, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    struct v4l2_capability capability = {0};
    if (xioctl(fd, VIDIOC_QUERYCAP, &capability) < 0 || !(capability.device_caps & V4L2_CAP_VIDEO_CAPTURE) ||
        !(capability.device_caps & V4L2_CAP_STREAMING)) {
        snprintf(error, error_size, "%s is not a video capture device with streaming I/O", path);
        close(fd);
        return NULL;
    }
    /* The preferred format first (slot 0), then conf's order. */
    struct { unsigned fourcc; int ours; } formats[] = {
        {0, 0}, {V4L2_PIX_FMT_YUYV, CONF_V4L2_YUYV}, {V4L2_PIX_FMT_NV12, CONF_V4L2_NV12}, {V4L2_PIX_FMT_YUV420, CONF_V4L2_I420},
        {V4L2_PIX_FMT_MJPEG, CONF_V4L2_MJPEG}};
    for (size_t i = 1; i < sizeof formats / sizeof formats[0]; i++) {
        if (formats[i].ours == preferred) formats[0] = formats[i];
    }
    struct v4l2_format format = {0};
    int chosen = 0;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0] && !chosen; i++) {
        if (formats[i].fourcc == 0) continue;
        memset(&format, 0, sizeof format);
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        format.fmt.pix.width = (unsigned)width;
        format.fmt.pix.height = (unsigned)height;
        format.fmt.pix.pixelformat = formats[i].fourcc;
        format.fmt.pix.field = V4L2_FIELD_NONE;
        if (xioctl(fd, VIDIOC_S_FMT, &format) == 0 && format.fmt.pix.pixelformat == formats[i].fourcc) chosen = formats[i].ours;
    }
    if (!chosen) {
        snprintf(error, error_size, "%s offers none of YUYV, NV12, YU12 or MJPEG", path);
        close(fd);
        return NULL;
    }
    struct v4l2_streamparm parameters = {0};
    parameters.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    parameters.parm.capture.timeperframe.numerator = 1;
    parameters.parm.capture.timeperframe.denominator = (unsigned)fps;
    xioctl(fd, VIDIOC_S_PARM, &parameters);  // best effort: vivid defaults to 5 fps otherwise

    conf_v4l2 *camera = calloc(1, sizeof *camera);
    camera->fd = fd;
    camera->format = chosen;
    camera->width = (int)format.fmt.pix.width;
    camera->height = (int)format.fmt.pix.height;
    camera->frame_size = format.fmt.pix.sizeimage;
    struct v4l2_requestbuffers request = {0};
    request.count = BUFFERS;
    request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    request.memory = V4L2_MEMORY_MMAP;
    if (xioctl(fd, VIDIOC_REQBUFS, &request) < 0 || request.count < 2) {
        snprintf(error, error_size, "%s: cannot get capture buffers: %s", path, strerror(errno));
        conf_v4l2_close(camera);
        return NULL;
    }
    camera->count = request.count > BUFFERS ? BUFFERS : request.count;
    for (unsigned i = 0; i < camera->count; i++) {
        struct v4l2_buffer buffer = {0};
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        buffer.memory = V4L2_MEMORY_MMAP;
        buffer.index = i;
        if (xioctl(fd, VIDIOC_QUERYBUF, &buffer) < 0) goto fail;
        camera->lengths[i] = buffer.length;
        camera->maps[i] = mmap(NULL, buffer.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, buffer.m.offset);
        if (camera->maps[i] == MAP_FAILED) { camera->maps[i] = NULL; goto fail; }
        if (xioctl(fd, VIDIOC_QBUF, &buffer) < 0) goto fail;
    }
    enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (xioctl(fd, VIDIOC_STREAMON, &type) < 0) goto fail;
    return camera;
fail:
    snprintf(error, error_size, "%s: cannot start streaming: %s", path, strerror(errno));
    conf_v4l2_close(camera);
    return NULL;
}

int conf_v4l2_fd(const conf_v4l2 *camera) { return camera->fd; }
int conf_v4l2_format(const conf_v4l2 *camera) { return camera->format; }
int conf_v4l2_width(const conf_v4l2 *camera) { return camera->width; }
int conf_v4l2_height(const conf_v4l2 *camera) { return camera->height; }
size_t conf_v4l2_frame_size(const conf_v4l2 *camera) { return camera->frame_size; }

long conf_v4l2_next(conf_v4l2 *camera, uint8_t *out, size_t capacity) {
    struct v4l2_buffer buffer = {0};
    buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buffer.memory = V4L2_MEMORY_MMAP;
    if (xioctl(camera->fd, VIDIOC_DQBUF, &buffer) < 0) return errno == EAGAIN ? 0 : -1;
    size_t size = buffer.bytesused < capacity ? buffer.bytesused : capacity;
    if (buffer.index < camera->count && camera->maps[buffer.index]) memcpy(out, camera->maps[buffer.index], size);
    xioctl(camera->fd, VIDIOC_QBUF, &buffer);
    return (long)size;
}

void conf_v4l2_close(conf_v4l2 *camera) {
    if (!camera) return;
    enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    xioctl(camera->fd, VIDIOC_STREAMOFF, &type);
    for (unsigned i = 0; i < camera->count; i++)
        if (camera->maps[i]) munmap(camera->maps[i], camera->lengths[i]);
    close(camera->fd);
    free(camera);
}

static int ours(unsigned fourcc) {
    switch (fourcc) {
    case V4L2_PIX_FMT_YUYV: return CONF_V4L2_YUYV;
    case V4L2_PIX_FMT_NV12: return CONF_V4L2_NV12;
    case V4L2_PIX_FMT_YUV420: return CONF_V4L2_I420;
    case V4L2_PIX_FMT_MJPEG: return CONF_V4L2_MJPEG;
    default: return 0;
    }
}

/* The most frames a second at this size: the shortest discrete interval, or a stepwise range's minimum. */
static int best_fps(int fd, unsigned fourcc, unsigned width, unsigned height) {
    struct v4l2_frmivalenum interval = {0};
    interval.pixel_format = fourcc;
    interval.width = width;
    interval.height = height;
    int best = 0;
    for (interval.index = 0; interval.index < 64 && xioctl(fd, VIDIOC_ENUM_FRAMEINTERVALS, &interval) == 0; interval.index++) {
        const struct v4l2_fract *fraction = interval.type == V4L2_FRMIVAL_TYPE_DISCRETE ? &interval.discrete : &interval.stepwise.min;
        if (fraction->numerator > 0) {
            int fps = (int)(fraction->denominator / fraction->numerator);
            if (fps > best) best = fps;
        }
        if (interval.type != V4L2_FRMIVAL_TYPE_DISCRETE) break;
    }
    return best;
}

static void add_mode(conf_v4l2_description *out, int format, unsigned width, unsigned height, int fps) {
    if (out->mode_count >= CONF_V4L2_MAX_MODES || width == 0 || height == 0 || width > 16384 || height > 16384) return;
    out->modes[out->mode_count++] = (conf_v4l2_mode){format, (int)width, (int)height, fps};
}

int conf_v4l2_describe(const char *path, conf_v4l2_description *out) {
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    struct v4l2_capability capability = {0};
    if (xioctl(fd, VIDIOC_QUERYCAP, &capability) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    unsigned caps = (capability.capabilities & V4L2_CAP_DEVICE_CAPS) ? capability.device_caps : capability.capabilities;
    memcpy(out->name, capability.card, sizeof capability.card < sizeof out->name - 1 ? sizeof capability.card : sizeof out->name - 1);
    out->captures = (caps & V4L2_CAP_VIDEO_CAPTURE) && (caps & V4L2_CAP_STREAMING);
    struct v4l2_fmtdesc description = {0};
    description.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    for (description.index = 0; out->captures && description.index < 64 && xioctl(fd, VIDIOC_ENUM_FMT, &description) == 0; description.index++) {
        int format = ours(description.pixelformat);
        if (!format) continue;
        struct v4l2_frmsizeenum size = {0};
        size.pixel_format = description.pixelformat;
        for (size.index = 0; size.index < 64 && xioctl(fd, VIDIOC_ENUM_FRAMESIZES, &size) == 0; size.index++) {
            if (size.type == V4L2_FRMSIZE_TYPE_DISCRETE) {
                add_mode(out, format, size.discrete.width, size.discrete.height,
                         best_fps(fd, description.pixelformat, size.discrete.width, size.discrete.height));
            } else {
                /* A range: its largest size stands for it. */
                add_mode(out, format, size.stepwise.max_width, size.stepwise.max_height,
                         best_fps(fd, description.pixelformat, size.stepwise.max_width, size.stepwise.max_height));
                break;
            }
        }
    }
    close(fd);
    return 0;
}
