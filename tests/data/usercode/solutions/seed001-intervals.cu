// Seed 001's "Reduccion por intervalos", corrected: the load bounded by n (the identity past it),
// a barrier after the load and after every level, and each level combining datos[index] with
// datos[index + i] (the slide combined datos[tid], so the pairs were not the tree's).
// @reducelab ops: max
// @reducelab types: int32
// @reducelab output: zeroed
__global__ void reduccion_intervalos(const int* device_vector, int* device_salida, unsigned int n) {
extern __shared__ int datos[];

int tid = threadIdx.x; //numero de hebra

int posicion = blockIdx.x * blockDim.x + threadIdx.x;
int index = 0;

datos[tid] = posicion < n ? device_vector[posicion] : Op::identity();
__syncthreads();

for(int i = 1; i < blockDim.x; i *= 2){
    index = 2 * i * tid;

    if(index < blockDim.x){
        if(datos[index] < datos[index+i]){
            datos[index] = datos[index+i];
        }
    }
    __syncthreads();
}

//Guardo los resultados en el vector D
if(device_salida[blockIdx.x] == 0){
    device_salida[blockIdx.x] = datos[0];
}
}
