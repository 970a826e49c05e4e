package confirm

// Kinds of confirmation.
const (
	KindConnect       = "connect"
	KindTransfer      = "transfer"       // ETH to an address, no calldata
	KindTokenTransfer = "token_transfer" // ERC-20 transfer / transferFrom
	KindTokenApproval = "token_approval" // ERC-20 approve (spending cap)
	KindNFTTransfer   = "nft_transfer"   // ERC-721 / ERC-1155 transfers
	KindNFTApproval   = "nft_approval"   // ERC-721 approve, setApprovalForAll
	KindContractCall  = "contract_call"  // any other calldata
	KindDeploy        = "deploy"         // a transaction without to
	KindPersonalSign  = "personal_sign"
	KindTypedData     = "typed_data_v4"
	KindAddNetwork    = "add_network"
	KindSwitchNetwork = "switch_network"
)

// approvalMethods are the EIP-1193 methods that open a confirmation, and
// the kind each opens (a transaction's is refined by its calldata).
var approvalMethods = map[string]string{
	"eth_requestAccounts":        KindConnect,
	"wallet_requestPermissions":  KindConnect,
	"eth_sendTransaction":        KindContractCall,
	"personal_sign":              KindPersonalSign,
	"eth_signTypedData_v4":       KindTypedData,
	"wallet_addEthereumChain":    KindAddNetwork,
	"wallet_switchEthereumChain": KindSwitchNetwork,
}

// NeedsApproval reports whether method may open a confirmation.
func NeedsApproval(method string) bool {
	_, ok := approvalMethods[method]
	return ok
}

// IsTransaction reports whether kind sends a transaction.
func IsTransaction(kind string) bool {
	switch kind {
	case KindTransfer, KindTokenTransfer, KindTokenApproval, KindNFTTransfer, KindNFTApproval, KindContractCall, KindDeploy:
		return true
	}
	return false
}

// KindOfRoute is the kind a wallet popup's hash route stands for, when no
// captured request says more ("" when unknown).
func KindOfRoute(route string) string {
	switch {
	case hasPrefix(route, "connect/"):
		return KindConnect
	case contains(route, "signature-request"):
		return KindPersonalSign
	case hasPrefix(route, "confirm-transaction/"):
		return KindContractCall
	case hasPrefix(route, "confirmation"):
		return KindSwitchNetwork
	}
	return ""
}

// family groups kinds a popup route tells apart: connect, signature,
// transaction, network.
func family(kind string) string {
	switch {
	case kind == KindConnect:
		return "connect"
	case kind == KindPersonalSign || kind == KindTypedData:
		return "signature"
	case IsTransaction(kind):
		return "transaction"
	case kind == KindAddNetwork || kind == KindSwitchNetwork:
		return "network"
	}
	return ""
}

// SameFamily reports whether a request of kind may be what a popup
// showing routeKind (KindOfRoute) shows.
func SameFamily(kind, routeKind string) bool {
	return routeKind == "" || family(kind) == family(routeKind)
}
