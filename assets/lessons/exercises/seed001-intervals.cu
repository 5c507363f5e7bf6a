// Seed 001's "Reduccion por intervalos" (interleaved addressing), maximum of int32, as its slide
// prints it: only the function line around the body is ReduceLab's (the slide shows the body;
// its n, the input's length, is never read there). `output: zeroed` sets each output to 0 before
// the launch, as the slide's `if (device_salida[blockIdx.x] == 0)` expects its host to.
// Press Check. Three things go wrong; the check, the guard zones and the hazard check name them.
// Goal: every case passes and the hazard check finds nothing.
// @reducelab ops: max
// @reducelab types: int32
// @reducelab output: zeroed
__global__ void reduccion_intervalos(const int* device_vector, int* device_salida, unsigned int n) {
extern __shared__ int datos[];

int tid = threadIdx.x; //numero de hebra

int posicion = blockIdx.x * blockDim.x + threadIdx.x;
int index = 0;

datos[tid] = device_vector[posicion];

for(int i = 1; i < blockDim.x; i *= 2){
    index = 2 * i * tid;

    if(index < blockDim.x){
        if(datos[tid] < datos[tid+i]){
            datos[tid] = datos[tid+i];
        }
    }
}

__syncthreads();

//Guardo los resultados en el vector D
if(device_salida[blockIdx.x] == 0){
    device_salida[blockIdx.x] = datos[0];
}
}
