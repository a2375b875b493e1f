/* conf has its own main and its own signal handling (GLib): SDL must provide neither. */
#define SDL_MAIN_HANDLED 1
#include <SDL.h>
#include <SDL_ttf.h>
