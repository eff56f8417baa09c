package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/protoavro/protoavro/kafka/internal/usage"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

// cmdDev runs franz-go's in-process Kafka cluster (kfake) and schema
// registry (srfake) on 127.0.0.1 until SIGINT/SIGTERM. Both keep everything
// in memory; srfake accepts every compatibility check (the local gate of
// register, check and bridge --check is what checks).
func cmdDev(ctx context.Context, args []string, stdout io.Writer, con *console) error {
	fs := newFlags("dev", "[--kafka-port 9092] [--registry-port 8081] [--topics a,b]", "", con)
	kport := fs.Int("kafka-port", 9092, "broker `PORT` on 127.0.0.1")
	rport := fs.Int("registry-port", 8081, "registry `PORT` on 127.0.0.1")
	topics := fs.String("topics", "", "`TOPICS` to create, comma-separated (others are created for clients that ask for auto-creation, as kcat does; the bridge does not)")
	parts := fs.Int("partitions", 4, "`N` partitions per topic")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usage.Errorf("unexpected argument %q", rest[0])
	}
	opts := []kfake.Opt{kfake.Ports(*kport), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(*parts)}
	if *topics != "" {
		names, err := splitFlag("topics", "topic name", *topics, true)
		if err != nil {
			return err
		}
		opts = append(opts, kfake.SeedTopics(int32(*parts), names...))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		return fmt.Errorf("starting the broker: %w", err)
	}
	defer c.Close()
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *rport))
	if err != nil {
		return fmt.Errorf("starting the registry: %w", err)
	}
	srv := &http.Server{Handler: srfake.NewRegistry().Handler(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // ends with Shutdown
	defer srv.Shutdown(context.Background())
	fmt.Fprintf(stdout, "kafka broker:    %s\nschema registry: http://%s\nCtrl-C stops both (all data is in memory).\n",
		strings.Join(c.ListenAddrs(), ","), ln.Addr())
	<-ctx.Done()
	return nil
}
