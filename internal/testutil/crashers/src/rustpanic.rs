fn main() {
    let v: Vec<i32> = Vec::new();
    let i = std::env::args().count() + 2;
    println!("{}", v[i]);
}
