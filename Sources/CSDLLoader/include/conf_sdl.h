/* SDL2 and SDL2_ttf, loaded only when a window opens (dlopen), not linked: they bring some 27
 * libraries (X11, Wayland, xkbcommon, FreeType, HarfBuzz...) that every conf process would
 * otherwise map and relocate at start, window or not (~9 ms of CPU and ~2 MiB of RSS each).
 * The headers give the types and constants; the functions are called through `conf_sdl()`,
 * whose pointers are set once `conf_sdl_load` has succeeded (and never before it is called). */
#ifndef CONF_SDL_H
#define CONF_SDL_H

/* conf has its own main and its own signal handling (GLib): SDL must provide neither. */
#define SDL_MAIN_HANDLED 1
#include <SDL2/SDL.h>
#include <SDL2/SDL_ttf.h>
#include <stddef.h>

#define CONF_SDL_FUNCTIONS(X) \
    X(SDL_GetError) X(SDL_SetHint) X(SDL_InitSubSystem) X(SDL_QuitSubSystem) X(SDL_GetDisplayUsableBounds) \
    X(SDL_CreateWindow) X(SDL_DestroyWindow) X(SDL_SetWindowFullscreen) X(SDL_CreateRenderer) X(SDL_DestroyRenderer) \
    X(SDL_GetRendererOutputSize) X(SDL_SetRenderDrawColor) X(SDL_SetRenderDrawBlendMode) X(SDL_RenderClear) \
    X(SDL_RenderFillRect) X(SDL_RenderDrawRect) X(SDL_RenderCopy) X(SDL_RenderPresent) X(SDL_CreateTexture) \
    X(SDL_CreateTextureFromSurface) X(SDL_UpdateYUVTexture) X(SDL_DestroyTexture) X(SDL_FreeSurface) X(SDL_PollEvent)

#define CONF_TTF_FUNCTIONS(X) X(TTF_Init) X(TTF_WasInit) X(TTF_OpenFont) X(TTF_CloseFont) X(TTF_RenderUTF8_Blended)

struct conf_sdl_functions {
#define CONF_SDL_POINTER(name) __typeof__(name) *_Nonnull name;
    CONF_SDL_FUNCTIONS(CONF_SDL_POINTER)
    CONF_TTF_FUNCTIONS(CONF_SDL_POINTER)
#undef CONF_SDL_POINTER
};

/* Loads libSDL2-2.0.so.0 and libSDL2_ttf-2.0.so.0 and finds every function; 0 when done (again
 * at once after a first success), else -1 with dlerror's words in `error`. Thread: the event
 * loop's (the window's) only. */
int conf_sdl_load(char *_Nonnull error, size_t size);

/* The functions; valid only after conf_sdl_load returned 0. */
const struct conf_sdl_functions *_Nonnull conf_sdl(void);

#endif
