// The explicit instantiations behind the extern declarations of decompositions.hpp.
#include "core/math/decompositions.hpp"

#define GRAPPLE_INSTANTIATE_DECOMPOSITION(...) template class __VA_ARGS__;
GRAPPLE_DENSE_DECOMPOSITIONS(GRAPPLE_INSTANTIATE_DECOMPOSITION)
