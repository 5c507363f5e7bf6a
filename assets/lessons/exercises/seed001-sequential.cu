// Seed 001's "Reduccion secuencial" (sequential addressing), maximum of int32, as its slide prints
// it: only the function line around the body is ReduceLab's (its n is never read there).
// `output: zeroed` sets each output to 0 before the launch, as the slide's
// `if (device_salida[blockIdx.x] == 0)` expects its host to.
// Press Check: which element does each thread compare with at each level?
// Goal: every case passes and the hazard check finds nothing.
// @reducelab ops: max
// @reducelab types: int32
// @reducelab output: zeroed
__global__ void reduccion_secuencial(const int* device_vector, int* device_salida, unsigned int n) {
extern __shared__ int datos[];

int tid = threadIdx.x; //numero de hebra

int posicion = blockIdx.x * blockDim.x + threadIdx.x;

datos[tid] = device_vector[posicion];

__syncthreads();

for(int i = blockDim.x/2; i > 0; i >>= 1){

    if(tid < i){

        if(datos[tid] < datos[tid+1]){

            datos[tid] = datos[tid+1];

        }

    }

    __syncthreads();

}

//Guardo los resultados en el vector D
if(device_salida[blockIdx.x] == 0){

    device_salida[blockIdx.x] = datos[0];

}
}
