package confirm

// The testids of a confirmation screen's approve and reject buttons:
// MetaMask 11.16's (the bundled test wallet uses the same) and the
// redesigned confirmations' and signatures'. A click on one of them in
// the wallet's popup answers the confirmation (mmcp flow export turns it
// into a confirm step).
var (
	ApproveTestIDs = []string{"page-container-footer-next", "confirmation-submit-button", "confirm-footer-button", "signature-sign-button"}
	RejectTestIDs  = []string{"page-container-footer-cancel", "confirmation-cancel-button", "confirm-footer-cancel-button", "signature-cancel-button"}
)
