package confirm

// Outcomes of a confirmation, as its step record keeps them.
const (
	// OutcomePending: read (mm_confirmation), not answered.
	OutcomePending = "pending"
	// OutcomeApproved and OutcomeRejected: answered with the wallet's
	// approve or reject button.
	OutcomeApproved = "approved"
	OutcomeRejected = "rejected"
	// OutcomeRefused: mm_confirm's expect did not hold; nothing clicked.
	OutcomeRefused = "refused"
	// OutcomeFailed: read, but answering it failed (no button, a click
	// that failed, no receipt).
	OutcomeFailed = "failed"
)

// Record is what a step record keeps of a confirmation (mm_confirmation's
// and mm_confirm's): the kind, the origin, the dapp's request decoded,
// what the wallet showed, where they differ, the outcome and, for a sent
// transaction, its hash and receipt status. The knowledge store masks
// anything shaped like a secret in it before it writes it.
type Record struct {
	Kind       string     `json:"kind"`
	Origin     string     `json:"origin,omitempty"`
	Request    *Decoded   `json:"request"`
	Shown      Shown      `json:"shown"`
	Mismatches []Mismatch `json:"mismatches"`
	Outcome    string     `json:"outcome"`
	// Expected are expect's fields that did not hold (OutcomeRefused).
	Expected []Mismatch `json:"expected,omitempty"`
	// DappError is the error code the dapp received (a rejection: 4001).
	DappError   *int      `json:"dappError,omitempty"`
	Transaction *RecordTx `json:"transaction,omitempty"`
}

// RecordTx is a sent transaction as a record keeps it.
type RecordTx struct {
	Hash   string `json:"hash"`
	Status int    `json:"status"`
}
