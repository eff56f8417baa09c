package bridge_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr/srfake"
	"google.golang.org/protobuf/encoding/protowire"
)

// Example bridges two topics, orders.eu and orders.us, matched by a
// regular expression, each to its own Avro topic, on an in-process broker
// (kfake) and registry (srfake), with metrics served by Handler.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1),
		kfake.SeedTopics(1, "orders.eu", "orders.us", "orders.eu-avro", "orders.us-avro", "orders.dlq"))
	if err != nil {
		log.Fatal(err)
	}
	defer cluster.Close()
	fake := srfake.New()
	defer fake.Close()
	reg, err := serde.NewRegistry(serde.RegistryOptions{}, fake.URL())
	if err != nil {
		log.Fatal(err)
	}

	// The producers' side: orders framed as Confluent's protobuf serializer
	// frames them.
	const proto = `syntax = "proto3"; package shop; message Order { string id = 1; int64 cents = 2; }`
	enc := serde.NewProtoEncoder(reg)
	id, err := enc.Register(ctx, "orders.eu-value", proto, nil)
	if err != nil {
		log.Fatal(err)
	}
	fd, err := serde.Compile(ctx, "order.proto", map[string]string{"order.proto": proto})
	if err != nil {
		log.Fatal(err)
	}
	md := fd.Messages().ByName("Order")
	cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...))
	if err != nil {
		log.Fatal(err)
	}
	defer cl.Close()
	for i, topic := range []string{"orders.eu", "orders.us", "orders.eu"} {
		wire := protowire.AppendTag(nil, 1, protowire.BytesType)
		wire = protowire.AppendString(wire, fmt.Sprint("order-", i))
		wire = protowire.AppendTag(wire, 2, protowire.VarintType)
		wire = protowire.AppendVarint(wire, uint64(100*i))
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: enc.Append(nil, id, md, wire)}).FirstErr(); err != nil {
			log.Fatal(err)
		}
	}

	m := bridge.NewMetrics()
	srv := httptest.NewServer(m.Handler()) // a program would listen on an address of its choice
	defer srv.Close()
	sum, err := bridge.Run(ctx, bridge.Config{
		Brokers:    cluster.ListenAddrs(),
		Group:      "orders-bridge",
		Inputs:     []string{`^orders\.(eu|us)$`},
		InputRegex: true,
		Output:     "{topic}-avro",
		DeadLetter: "orders.dlq",
		Registry:   reg,
		Metrics:    m,
		MaxRecords: 3,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sum.Records, "records,", sum.DeadLettered, "dead-lettered")
	for _, subject := range []string{"orders.eu-avro-value", "orders.us-avro-value"} {
		s, err := reg.SchemaByVersion(ctx, subject, -1)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(subject, s.Type)
	}
	// Output:
	// 3 records, 0 dead-lettered
	// orders.eu-avro-value AVRO
	// orders.us-avro-value AVRO
}
