module gopanic

go 1.22
