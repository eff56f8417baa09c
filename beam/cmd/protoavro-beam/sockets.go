package main

import (
	byteorder "encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// parseSockets parses the text of /proc/net/tcp or tcp6: "sl local_address
// rem_address st ... inode ...", each address HEX:PORT with the address in
// 32-bit words of host byte order.
func parseSockets(b []byte) ([]socketLine, error) {
	var socks []socketLine
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 10 {
			continue
		}
		local, err := parseAddrPort(f[1])
		if err != nil {
			return nil, err
		}
		remote, err := parseAddrPort(f[2])
		if err != nil {
			return nil, err
		}
		socks = append(socks, socketLine{local: local, remote: remote, state: f[3], inode: f[9]})
	}
	return socks, nil
}

// socketLine is a line of /proc/net/tcp or tcp6.
type socketLine struct {
	local, remote netip.AddrPort
	state         string // hex: 0A is LISTEN
	inode         string
}

func parseAddrPort(s string) (netip.AddrPort, error) {
	hexAddr, hexPort, ok := strings.Cut(s, ":")
	port, err := strconv.ParseUint(hexPort, 16, 16)
	raw, herr := hex.DecodeString(hexAddr)
	if !ok || err != nil || herr != nil || len(raw)%4 != 0 || (len(raw) != 4 && len(raw) != 16) {
		return netip.AddrPort{}, fmt.Errorf("socket table: address %q", s)
	}
	for i := 0; i < len(raw); i += 4 {
		byteorder.NativeEndian.PutUint32(raw[i:], byteorder.BigEndian.Uint32(raw[i:]))
	}
	a, _ := netip.AddrFromSlice(raw)
	return netip.AddrPortFrom(a, uint16(port)), nil
}
