// What the standalone experiment programs of this folder share: the error check of CUDA calls
// and the benches' bandwidth floor (built with nvcc on the GPU host, not by cargo).
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                                    \
    do {                                                                                         \
        cudaError_t e = (x);                                                                     \
        if (e != cudaSuccess) {                                                                  \
            printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__);                          \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

// The bandwidth (bytes read + written, GB/s) of a 2 GiB device-to-device copy: the median of
// ten, timed with CUDA events, as the gpu_* benches take their bytes floor.
inline double copy_gbps() {
    const size_t bytes = size_t(1) << 31;
    void *a, *b;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<float> t;
    for (int r = 0; r < 10; ++r) {
        cudaEventRecord(e0);
        cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms;
        cudaEventElapsedTime(&ms, e0, e1);
        t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    cudaFree(a);
    cudaFree(b);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return 2.0 * bytes / (t[t.size() / 2] * 1e-3) / 1e9;
}

// "<name>, <SMs> SMs; 2 GiB copy <GB/s>" and the copy bandwidth.
inline double print_device_and_floor(int &sms) {
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const double gbps = copy_gbps();
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("%s, %d SMs; 2 GiB copy %.0f GB/s (read + write)\n", prop.name, sms, gbps);
    return gbps;
}
