#ifndef CGLIB_SHIM_H
#define CGLIB_SHIM_H
#include <glib.h>
#include <glib-unix.h>
#include <gio/gio.h>
#include <libsoup/soup.h>
#include <nice/agent.h>
// GUPnP-IGD (UPnP port mapping): its header needs only GLib, so it is named by its full path
// rather than through its own pkg-config file.
#include <gupnp-igd-1.0/libgupnp-igd/gupnp-simple-igd.h>
#endif
