#include "conf_sdl.h"

#include <dlfcn.h>
#include <stdio.h>

static struct conf_sdl_functions functions;
static int loaded;

static int open_library(const char *name, void **handle, char *error, size_t size) {
    *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (*handle == NULL) snprintf(error, size, "%s", dlerror());
    return *handle == NULL ? -1 : 0;
}

int conf_sdl_load(char *error, size_t size) {
    if (loaded) return 0;
    void *sdl, *ttf;
    if (open_library("libSDL2-2.0.so.0", &sdl, error, size) != 0) return -1;
    if (open_library("libSDL2_ttf-2.0.so.0", &ttf, error, size) != 0) return -1;
#define CONF_SDL_FIND(handle, library, name) \
    if ((*(void **)&functions.name = dlsym(handle, #name)) == NULL) { \
        snprintf(error, size, "%s has no %s", library, #name); \
        return -1; \
    }
#define CONF_SDL_FIND_SDL(name) CONF_SDL_FIND(sdl, "libSDL2", name)
#define CONF_SDL_FIND_TTF(name) CONF_SDL_FIND(ttf, "libSDL2_ttf", name)
    CONF_SDL_FUNCTIONS(CONF_SDL_FIND_SDL)
    CONF_TTF_FUNCTIONS(CONF_SDL_FIND_TTF)
    loaded = 1;
    return 0;
}

const struct conf_sdl_functions *conf_sdl(void) { return &functions; }
