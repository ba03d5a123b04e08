package access

import (
	"net/netip"
	"strings"
	"testing"
)

// procTCP and procTCP6 are socket tables as a little-endian Linux prints
// them: a router listening on 127.0.0.1:8080 (0x1F90) and [::]:8080, a
// client of uid 1000 on 127.0.0.1:40000 (0x9C40), the router's accepted
// end (uid 0), a TIME_WAIT remnant of port 40001 (uid 0, inode 0), and in
// tcp6 an IPv6 client of uid 1001 and an IPv6 socket of uid 1002 connected
// to the IPv4-mapped address ::ffff:127.0.0.1:8080 from port 40002.
const procTCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 100 1 0000000000000000 100 0 0 10 0
   1: 0100007F:9C40 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 101 1 0000000000000000 20 4 30 10 -1
   2: 0100007F:1F90 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 102 1 0000000000000000 20 4 30 10 -1
   3: 0100007F:9C41 0100007F:1F90 06 00000000:00000000 03:00001770 00000000     0        0 0 3 0000000000000000
`

const procTCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 200 1 0000000000000000 100 0 0 10 0
   1: 00000000000000000000000001000000:9C40 00000000000000000000000001000000:1F90 01 00000000:00000000 00:00000000 00000000  1001        0 201 1 0000000000000000 20 4 30 10 -1
   2: 0000000000000000FFFF00000100007F:9C42 0000000000000000FFFF00000100007F:1F90 01 00000000:00000000 00:00000000 00000000  1002        0 202 1 0000000000000000 20 4 30 10 -1
`

func TestFindProcNet(t *testing.T) {
	ap := netip.MustParseAddrPort
	cases := []struct {
		name, table    string
		client, server netip.AddrPort
		want           owner
	}{
		{"ipv4 client", procTCP, ap("127.0.0.1:40000"), ap("127.0.0.1:8080"), owner{local: true, uid: 1000}},
		{"dual-stack view of an ipv4 client", procTCP, ap("[::ffff:127.0.0.1]:40000"), ap("[::ffff:127.0.0.1]:8080"), owner{local: true, uid: 1000}},
		{"the server's own end is not the client", procTCP, ap("127.0.0.1:8080"), ap("127.0.0.1:40000"), owner{local: true, uid: 0}},
		{"time-wait remnant has no owner", procTCP, ap("127.0.0.1:40001"), ap("127.0.0.1:8080"), owner{}},
		{"absent", procTCP, ap("127.0.0.1:40009"), ap("127.0.0.1:8080"), owner{}},
		{"ipv6 client", procTCP6, ap("[::1]:40000"), ap("[::1]:8080"), owner{local: true, uid: 1001}},
		{"ipv6 socket on a mapped address", procTCP6, ap("127.0.0.1:40002"), ap("127.0.0.1:8080"), owner{local: true, uid: 1002}},
		{"ipv4 pair is not an ipv6 row", procTCP6, ap("127.0.0.1:40000"), ap("127.0.0.1:8080"), owner{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := findProcNet(strings.NewReader(c.table), c.client, c.server)
			if err != nil || got != c.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}

func TestFindProcNetRejectsMalformedRows(t *testing.T) {
	head := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	for _, row := range []string{
		"   0: 0100007F:9C40 0100007F:1F90 01",
		"   0: 0100007F9C40 0100007F:1F90 01 00000000:00000000 00:00000000 00000000 1000 0 101",
		"   0: 0100007G:9C40 0100007F:1F90 01 00000000:00000000 00:00000000 00000000 1000 0 101",
		"   0: 0100007F:9C40 0100007F:1F90 01 00000000:00000000 00:00000000 00000000 -1 0 101",
		"   0: 0100007F:9C40 0100007F:1F90 01 00000000:00000000 00:00000000 00000000 1000 0 x",
		"   0: 0100007F:9C4 0100007F:1F90 01 00000000:00000000 00:00000000 00000000 1000 0 101",
		"   0: 0100007F:9C40 " + strings.Repeat("A", 5000),
	} {
		if _, err := findProcNet(strings.NewReader(head+row+"\n"), netip.MustParseAddrPort("127.0.0.1:1"), netip.MustParseAddrPort("127.0.0.1:2")); err == nil {
			t.Errorf("accepted %q", row[:min(len(row), 80)])
		}
	}
}

// FuzzFindProcNet: any table text gives an owner or an error, never a
// panic, and an owner is only reported for a row that parses.
func FuzzFindProcNet(f *testing.F) {
	f.Add(procTCP)
	f.Add(procTCP6)
	f.Add("header\n0: 0100007F:9C40 0100007F:1F90 01 a b c 1000 0 101\n")
	client, server := netip.MustParseAddrPort("127.0.0.1:40000"), netip.MustParseAddrPort("127.0.0.1:8080")
	f.Fuzz(func(t *testing.T, table string) {
		o, err := findProcNet(strings.NewReader(table), client, server)
		if err != nil && o.local {
			t.Fatalf("owner %+v with error %v", o, err)
		}
	})
}
