package mmcp

//go:generate go run ../../cmd/mmcp gen --out tools_gen.go --package mmcp
