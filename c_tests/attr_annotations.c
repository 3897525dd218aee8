/* attr_annotations.c: enzyme.h's source marks (annotations that survive
 * into IR on the CLI and the plugin route), checked at -O0..-O3 where
 * clang would otherwise inline the marked functions; the functions and
 * checks are in marks_checks.h. */
#include "enzyme.h"

#define MARK_INACTIVE ENZYME_INACTIVE
#define MARK_INACTIVE_GLOBAL ENZYME_INACTIVE_GLOBAL
#define MARK_FUNCTION_LIKE_LOG1P ENZYME_FUNCTION_LIKE("log1p")
#define MARK_GRADIENT_RSQRT ENZYME_GRADIENT(aug_rsqrt, rev_rsqrt)
#define MARK_DERIVATIVE_CUBE ENZYME_DERIVATIVE(fwd_cube)

#include "marks_checks.h"
