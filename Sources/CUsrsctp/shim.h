#include <usrsctp.h>
