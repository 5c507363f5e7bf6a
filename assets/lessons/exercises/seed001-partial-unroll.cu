// Seed 001's "Desenrrollado parcial" (the last warp unrolled), maximum of int32, as its slides
// print it: only the function line around the body is ReduceLab's (its n is never read there),
// and the helper, which the slide defines after the kernel, comes first (CUDA needs it declared).
// `output: zeroed` sets each output to 0 before the launch, as the slide's
// `if (device_salida[blockIdx.x] == 0)` expects its host to.
// Press Check: what orders the load before the first level? Which element does a thread compare with?
// Goal: every case passes and the hazard check finds nothing.
// @reducelab ops: max
// @reducelab types: int32
// @reducelab output: zeroed
__device__ void desenrollado_reduce_32(volatile int* datos, int tid){

    if(datos[tid] < datos[tid+32]) datos[tid] = datos[tid+32];
    if(datos[tid] < datos[tid+16]) datos[tid] = datos[tid+16];
    if(datos[tid] < datos[tid+8]) datos[tid] = datos[tid+8];
    if(datos[tid] < datos[tid+4]) datos[tid] = datos[tid+4];
    if(datos[tid] < datos[tid+2]) datos[tid] = datos[tid+2];
    if(datos[tid] < datos[tid+1]) datos[tid] = datos[tid+1];

}

__global__ void reduccion_desenrollado_parcial(const int* device_vector, int* device_salida, unsigned int n) {
extern __shared__ int datos[];

int tid = threadIdx.x; //numero de hebra

int posicion = blockIdx.x * blockDim.x + threadIdx.x;

datos[tid] = device_vector[posicion];

for(int i = blockDim.x/2; i > 32; i >>= 1){

    if(tid < i){

        if(datos[tid] < datos[tid+1]){

            datos[tid] = datos[tid+1];

        }

    }

    __syncthreads();
}

if(tid < 32) desenrollado_reduce_32(datos,tid);

//Guardo los resultados en el vector D
if(device_salida[blockIdx.x] == 0){

    device_salida[blockIdx.x] = datos[0];
}
}
