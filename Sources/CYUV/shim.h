#include <stddef.h>
#include <stdint.h>
#include <libyuv/convert.h>
#include <libyuv/scale.h>
