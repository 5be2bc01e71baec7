#pragma once
#ifndef OFFSET
#define OFFSET 0.0f
#endif
__device__ inline float bb_scale(float x, int f) { return x * static_cast<float>(f); }
