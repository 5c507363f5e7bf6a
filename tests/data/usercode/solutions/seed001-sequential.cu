// Seed 001's "Reduccion secuencial", corrected: the load bounded by n (the identity past it), and
// each level combining datos[tid] with datos[tid + i] (the slide read datos[tid + 1]: a neighbour,
// which a neighbouring thread writes in the same level).
// @reducelab ops: max
// @reducelab types: int32
// @reducelab output: zeroed
__global__ void reduccion_secuencial(const int* device_vector, int* device_salida, unsigned int n) {
extern __shared__ int datos[];

int tid = threadIdx.x; //numero de hebra

int posicion = blockIdx.x * blockDim.x + threadIdx.x;

datos[tid] = posicion < n ? device_vector[posicion] : Op::identity();

__syncthreads();

for(int i = blockDim.x/2; i > 0; i >>= 1){

    if(tid < i){

        if(datos[tid] < datos[tid+i]){

            datos[tid] = datos[tid+i];

        }

    }

    __syncthreads();

}

//Guardo los resultados en el vector D
if(device_salida[blockIdx.x] == 0){

    device_salida[blockIdx.x] = datos[0];

}
}
