#ifndef CNICE_SHIM_H
#define CNICE_SHIM_H
#include <glib.h>
#include <agent.h>
#endif
