#ifndef CGLIBSOUP_SHIM_H
#define CGLIBSOUP_SHIM_H
#include <glib.h>
#include <glib-unix.h>
#include <gio/gio.h>
#include <libsoup/soup.h>
#endif
