// Package golden is the golden output of the codegen tests: tools_gen.go is
// codegen.Render of the test server's registry (testdata/tools.json),
// compiled here so the generated code is known to build, and exercised
// against the live test server by golden_test.go.
package golden
