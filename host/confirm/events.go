package confirm

import (
	"encoding/hex"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

// Log is a receipt's log as the node answers it.
type ReceiptLog struct {
	Address string   `json:"address"`
	Topics  []string `json:"topics"`
	Data    string   `json:"data"`
}

// Event is a decoded token or NFT event.
type Event struct {
	// Standard is erc20, erc721 or erc1155; Name the event's.
	Standard string         `json:"standard"`
	Name     string         `json:"name"`
	Contract string         `json:"contract"`
	Args     map[string]any `json:"args"`
}

// DecodeEvents decodes the ERC-20, ERC-721 and ERC-1155 events among logs
// (Transfer with three topics is ERC-20's, with four ERC-721's).
func DecodeEvents(logs []ReceiptLog) []Event {
	out := []Event{}
	for _, l := range logs {
		if len(l.Topics) == 0 {
			continue
		}
		topic0 := common.HexToHash(l.Topics[0])
		var std string
		var a abi.ABI
		switch {
		case len(l.Topics) == 4 && hasEvent(erc721ABI, topic0):
			std, a = ERC721, erc721ABI
		case hasEvent(erc20ABI, topic0) && len(l.Topics) == 3:
			std, a = ERC20, erc20ABI
		case hasEvent(erc1155ABI, topic0):
			std, a = ERC1155, erc1155ABI
		case hasEvent(erc721ABI, topic0):
			std, a = ERC721, erc721ABI
		default:
			continue
		}
		ev, err := a.EventByID(topic0)
		if err != nil {
			continue
		}
		args := map[string]any{}
		data, err := hex.DecodeString(strings.TrimPrefix(l.Data, "0x"))
		if err != nil {
			continue
		}
		if err := ev.Inputs.NonIndexed().UnpackIntoMap(args, data); err != nil {
			continue
		}
		var indexed abi.Arguments
		for _, in := range ev.Inputs {
			if in.Indexed {
				indexed = append(indexed, in)
			}
		}
		topics := make([]common.Hash, 0, len(l.Topics)-1)
		for _, t := range l.Topics[1:] {
			topics = append(topics, common.HexToHash(t))
		}
		if err := abi.ParseTopicsIntoMap(args, indexed, topics); err != nil {
			continue
		}
		for k, v := range args {
			args[k] = jsonValue(v)
		}
		out = append(out, Event{Standard: std, Name: ev.RawName, Contract: checksum(l.Address), Args: args})
	}
	return out
}

func hasEvent(a abi.ABI, id common.Hash) bool {
	_, err := a.EventByID(id)
	return err == nil
}
