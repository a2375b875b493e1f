#ifndef CGLIB_SHIM_H
#define CGLIB_SHIM_H
#include <glib.h>
#include <glib-unix.h>
#include <gio/gio.h>
#include <libsoup/soup.h>
#include <nice/agent.h>
#endif
