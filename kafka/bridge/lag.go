// lag.go holds the lag tracking: how far each of the instance's input
// partitions is behind the end of what it can read.

package bridge

import (
	"context"

	"github.com/twmb/franz-go/pkg/kgo"
)

// topicPartition names an input partition.
type topicPartition struct {
	topic     string
	partition int32
}

// noteLag records the lag of each fetched partition: from the last record
// read (a transaction marker too: KeepControlRecords) to the last stable
// offset, the end of what a read-committed consumer can read (records of
// open transactions are not readable yet), or to the high watermark when the
// broker reports no last stable offset.
func (b *bridge) noteLag(fs kgo.Fetches) {
	b.lagMu.Lock()
	defer b.lagMu.Unlock()
	fs.EachPartition(func(p kgo.FetchTopicPartition) {
		if n := len(p.Records); n > 0 {
			end := p.HighWatermark
			if p.LastStableOffset >= 0 {
				end = min(end, p.LastStableOffset)
			}
			lag := max(0, end-(p.Records[n-1].Offset+1))
			b.lag[topicPartition{p.Topic, p.Partition}] = lag
			b.cfg.Metrics.setLag(p.Topic, p.Partition, lag)
		}
	})
}

// assigned notes the partitions the instance was given: for the metrics,
// the input topics it holds a partition of (see Metrics).
func (b *bridge) assigned(_ context.Context, _ *kgo.Client, got map[string][]int32) {
	b.lagMu.Lock()
	defer b.lagMu.Unlock()
	for topic, ps := range got {
		if len(ps) == 0 {
			continue
		}
		held := b.held[topic]
		if held == nil {
			held = map[int32]bool{}
			b.held[topic] = held
			b.cfg.Metrics.hold(topic, b.outputOf(topic))
		}
		for _, p := range ps {
			held[p] = true
		}
	}
}

// forgetLag drops the lag of partitions the instance no longer has, and
// notes for the metrics the input topics it no longer holds a partition
// of (but not as it leaves the group at the end of the run: the final
// summary reports the lag it left).
func (b *bridge) forgetLag(_ context.Context, _ *kgo.Client, gone map[string][]int32) {
	if b.leaving.Load() {
		return
	}
	b.lagMu.Lock()
	defer b.lagMu.Unlock()
	for topic, ps := range gone {
		for _, p := range ps {
			delete(b.lag, topicPartition{topic, p})
			b.cfg.Metrics.forgetLag(topic, p)
		}
		held := b.held[topic]
		if held == nil {
			continue
		}
		for _, p := range ps {
			delete(held, p)
		}
		if len(held) == 0 {
			delete(b.held, topic)
			b.cfg.Metrics.release(topic, b.outputOf(topic))
		}
	}
}

// outputOf returns the output topic of input topic in, or "" when it has
// none the bridge can produce to (it is the dead-letter topic, or an
// input topic).
func (b *bridge) outputOf(in string) string {
	out, err := b.outs.topic(in)
	if err != nil {
		return ""
	}
	return out
}

// totalLag is the lag over the instance's partitions.
func (b *bridge) totalLag() int64 {
	b.lagMu.Lock()
	defer b.lagMu.Unlock()
	var lag int64
	for _, l := range b.lag {
		lag += l
	}
	return lag
}
