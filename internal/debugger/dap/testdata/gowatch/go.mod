module gowatch

go 1.22
