/* plugin_attributes.c: the source attributes of the clang plugin
 * (clang -fplugin=libenz_plugin.so; this fixture runs on that route only:
 * without the plugin clang drops the attributes), checked at -O0..-O3,
 * where clang would otherwise inline the marked functions; the functions
 * and checks are in marks_checks.h. The include of enzyme.h needs no -I:
 * the plugin puts it on the path. */
#include <enzyme.h>

#ifdef NO_AD
#define ATTR(...)
#else
#define ATTR(...) __attribute__((__VA_ARGS__))
#endif
#define MARK_INACTIVE ATTR(enzyme_inactive)
#define MARK_INACTIVE_GLOBAL ATTR(enzyme_inactive)
#define MARK_FUNCTION_LIKE_LOG1P ATTR(enzyme_function_like("log1p"))
#define MARK_GRADIENT_RSQRT ATTR(enzyme("augment", aug_rsqrt), enzyme("gradient", rev_rsqrt))
#define MARK_DERIVATIVE_CUBE ATTR(enzyme("derivative", fwd_cube))

#include "marks_checks.h"
