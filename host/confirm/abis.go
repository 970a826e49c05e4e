package confirm

import (
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
)

// The standard interfaces requests and receipts are decoded with. ERC-20
// and ERC-721 share approve, transferFrom and the Transfer event's topic:
// a contract that answers decimals() is taken for ERC-20 (see decode).
const (
	erc20JSON = `[
{"type":"function","name":"transfer","inputs":[{"name":"to","type":"address"},{"name":"amount","type":"uint256"}]},
{"type":"function","name":"transferFrom","inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"amount","type":"uint256"}]},
{"type":"function","name":"approve","inputs":[{"name":"spender","type":"address"},{"name":"amount","type":"uint256"}]},
{"type":"function","name":"increaseAllowance","inputs":[{"name":"spender","type":"address"},{"name":"addedValue","type":"uint256"}]},
{"type":"function","name":"decimals","inputs":[],"outputs":[{"name":"","type":"uint8"}]},
{"type":"function","name":"symbol","inputs":[],"outputs":[{"name":"","type":"string"}]},
{"type":"event","name":"Transfer","inputs":[{"name":"from","type":"address","indexed":true},{"name":"to","type":"address","indexed":true},{"name":"value","type":"uint256"}]},
{"type":"event","name":"Approval","inputs":[{"name":"owner","type":"address","indexed":true},{"name":"spender","type":"address","indexed":true},{"name":"value","type":"uint256"}]}]`
	erc721JSON = `[
{"type":"function","name":"transferFrom","inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"tokenId","type":"uint256"}]},
{"type":"function","name":"safeTransferFrom","inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"tokenId","type":"uint256"}]},
{"type":"function","name":"safeTransferFrom","inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"tokenId","type":"uint256"},{"name":"data","type":"bytes"}]},
{"type":"function","name":"approve","inputs":[{"name":"to","type":"address"},{"name":"tokenId","type":"uint256"}]},
{"type":"function","name":"setApprovalForAll","inputs":[{"name":"operator","type":"address"},{"name":"approved","type":"bool"}]},
{"type":"function","name":"mintNFTs","inputs":[{"name":"numberOfTokens","type":"uint256"}]},
{"type":"event","name":"Transfer","inputs":[{"name":"from","type":"address","indexed":true},{"name":"to","type":"address","indexed":true},{"name":"tokenId","type":"uint256","indexed":true}]},
{"type":"event","name":"ApprovalForAll","inputs":[{"name":"owner","type":"address","indexed":true},{"name":"operator","type":"address","indexed":true},{"name":"approved","type":"bool"}]}]`
	erc1155JSON = `[
{"type":"function","name":"safeTransferFrom","inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"id","type":"uint256"},{"name":"amount","type":"uint256"},{"name":"data","type":"bytes"}]},
{"type":"function","name":"safeBatchTransferFrom","inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"ids","type":"uint256[]"},{"name":"amounts","type":"uint256[]"},{"name":"data","type":"bytes"}]},
{"type":"event","name":"TransferSingle","inputs":[{"name":"operator","type":"address","indexed":true},{"name":"from","type":"address","indexed":true},{"name":"to","type":"address","indexed":true},{"name":"id","type":"uint256"},{"name":"value","type":"uint256"}]},
{"type":"event","name":"TransferBatch","inputs":[{"name":"operator","type":"address","indexed":true},{"name":"from","type":"address","indexed":true},{"name":"to","type":"address","indexed":true},{"name":"ids","type":"uint256[]"},{"name":"values","type":"uint256[]"}]}]`
)

// The standards' names, as answers give them.
const (
	ERC20   = "erc20"
	ERC721  = "erc721"
	ERC1155 = "erc1155"
)

var (
	erc20ABI   = mustABI(erc20JSON)
	erc721ABI  = mustABI(erc721JSON)
	erc1155ABI = mustABI(erc1155JSON)
)

func mustABI(s string) abi.ABI {
	a, err := abi.JSON(strings.NewReader(s))
	if err != nil {
		panic(err)
	}
	return a
}
