// Includes a header that is nowhere on the include path.
#include "tile_config.h"

__global__ void uses_tile(float* data) { data[threadIdx.x] = TILE; }
