// Package knowledge is the host's knowledge store: it writes one StepRecord
// per recorded tool call and one session.json per launched session under
// <artifacts>/llm-knowledge/<sessionId>/, and answers the knowledge tools
// (mm_knowledge_last, _search, _summarize, _sessions) and the priorKnowledge
// block of mm_describe_screen across sessions.
//
// The JSON files are the source of truth, so a store written by another
// mmcp process or by MetaMask's TypeScript implementation is readable. A
// Store keeps an in-memory index of those files, built on the first query
// by reading every file once and then refreshed incrementally: a query
// stats the session directories and reads only files it has not seen.
// Files that are not StepRecords are skipped and counted, never fatal.
package knowledge
