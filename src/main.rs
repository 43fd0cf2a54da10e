fn main() {
    tch::set_num_threads(1);
    println!("libtorch cuda: {}", tch::Cuda::is_available());
}
