// Seed 001's "Desenrrollado parcial", corrected: the load bounded by n and followed by a barrier,
// each level combining datos[tid] with datos[tid + i], and the last warp's stages separated by
// __syncwarp() (since Volta the lanes of a warp need not run in lockstep: volatile is not enough).
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

__global__ void reduccion_desenrollado_parcial(const int* device_vector, int* device_salida, unsigned int n) {
extern __shared__ int datos[];

int tid = threadIdx.x; //numero de hebra

int posicion = blockIdx.x * blockDim.x + threadIdx.x;

datos[tid] = posicion < n ? device_vector[posicion] : Op::identity();
__syncthreads();

for(int i = blockDim.x/2; i > 32; i >>= 1){

    if(tid < i){

        if(datos[tid] < datos[tid+i]){

            datos[tid] = datos[tid+i];

        }

    }

    __syncthreads();
}

if(tid < 32) desenrollado_reduce_32(datos,tid);

//Guardo los resultados en el vector D
if(tid == 0 && device_salida[blockIdx.x] == 0){

    device_salida[blockIdx.x] = datos[0];
}
}
