// Seed 001's "Desenrrollado total" (every level unrolled), maximum of int32, as its slides print
// it: only the function line around the body is ReduceLab's (its n is never read there), and the
// helper comes first, as the partial unroll's slide defines it. `output: zeroed` sets each output
// to 0 before the launch, as the slide's `if (device_salida[blockIdx.x] == 0)` expects its host to.
// Press Check: the compiler speaks first. Then: what orders the load before the first level?
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

__global__ void reduccion_desenrollado_total(const int* device_vector, int* device_salida, unsigned int n) {
extern __shared__ int datos[];

int tid = threadIdx.x; //numero de hebra

int posicion = blockIdx.x * blockDim.x + threadIdx.x;

datos[tid] = device_vector[posicion];

if(blockDim.x >= 2048){
    if(tid < 1024){
        if(datos[tid] < datos[tid + 1024]){
            datos[tid] = datos[tid + 1024];
        }
    }
}

if(blockDim.x >= 1024){
    if(tid < 512){
        if(datos[tid] < datos[tid + 512]){
            datos[tid] = datos[tid + 512];
        }
    }
    __syncthreads();
}

if(blockDim.x >= 512){
    if(tid < 256){
        if(datos[tid] < datos[tid + 256]){
            datos[tid] = datos[tid + 256];
        }
    }
    __syncthreads();
}

if(blockDim.x >= 256){
    if(tid < 128){
        if(datos[tid] < datos[tid + 128]){
            datos[tid] = datos[tid + 128];
        }
    }
    __syncthreads();
}

if(blockDim.x >= 128){
    if(tid < 64){
        if(datos[tid] < datos[tid + 64]){
            datos[tid] = datos[tid + 64];
        }
    }
    __syncthreads();
}

if(tid < 32) desenrrollado_reduce_32(datos,tid);

__syncthreads();
//Guardo los resultados en el vector D
if(device_salida[blockIdx.x] == 0){

    device_salida[blockIdx.x] = datos[0];
}
}
