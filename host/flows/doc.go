// Package flows runs wallet flows as tests: a flow file (YAML, checked
// against flow.schema.json) launches a session, runs steps in the
// mm_run_steps step shape and checks expectations on the state it ends
// in. Runner runs a suite in parallel, each flow in a session of its own,
// with retries, timeouts and failure artifacts; report.go writes JUnit and
// JSON and merges shards' reports; Export turns a recorded session of the
// knowledge store into a flow.
package flows
