// Seed 001's "Desenrrollado total", corrected: the helper called by the name it is defined with
// (the slide wrote desenrrollado_reduce_32), the load bounded by n and followed by a barrier, the
// last warp's stages separated by __syncwarp(), and thread 0 alone writing the block's result.
// @reducelab ops: max
// @reducelab types: int32
// @reducelab output: zeroed
__device__ void desenrollado_reduce_32(volatile int* datos, int tid){
    int v = max(datos[tid], datos[tid+32]);
    for (int offset = 16; offset > 0; offset >>= 1) {
        __syncwarp();
        datos[tid] = v;
        __syncwarp();
        v = max(v, datos[tid+offset]);
    }
    __syncwarp();
    datos[tid] = v;
}

__global__ void reduccion_desenrollado_total(const int* device_vector, int* device_salida, unsigned int n) {
extern __shared__ int datos[];

int tid = threadIdx.x; //numero de hebra

int posicion = blockIdx.x * blockDim.x + threadIdx.x;

datos[tid] = posicion < n ? device_vector[posicion] : Op::identity();
__syncthreads();

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

if(tid < 32) desenrollado_reduce_32(datos,tid);

__syncthreads();
//Guardo los resultados en el vector D
if(tid == 0 && device_salida[blockIdx.x] == 0){

    device_salida[blockIdx.x] = datos[0];
}
}
