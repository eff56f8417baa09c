// brokererr.go holds the bridge's verdicts on broker errors: which fetch
// and offset-commit errors it continues after (logged and counted) and
// which stop it.

package bridge

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// fetchErr returns the first fatal error of a poll: nil for none, for the
// end of the run (ctx done, client closed) and for informational errors,
// which are counted and logged (Config.Logger).
func (b *bridge) fetchErr(ctx context.Context, fs kgo.Fetches) error {
	if fs.IsClientClosed() || ctx.Err() != nil {
		return nil
	}
	for _, fe := range fs.Errors() {
		if errors.Is(fe.Err, context.Canceled) || errors.Is(fe.Err, context.DeadlineExceeded) {
			continue
		}
		what := fmt.Sprintf("fetching %s[%d]", fe.Topic, fe.Partition)
		if errors.Is(fe.Err, kerr.UnknownTopicID) {
			return recreated(what, fmt.Sprintf("%q", fe.Topic), fe.Err)
		}
		err := &bounded{fmt.Errorf("bridge: %s: %w", what, fe.Err)}
		if !informational(fe.Err) {
			return err
		}
		b.warnings.Add(1)
		b.warn(err, "")
	}
	return nil
}

// recreated returns the error that stops the bridge when topic was deleted
// and created again while it ran: kgo answers UNKNOWN_TOPIC_ID for the old
// topic's ID, from a fetch (after retrying it for a new topic's ID that the
// brokers have not all learned yet) or from an offset commit (refused by the
// client, or by a broker that no longer has the ID). kgo never reads the new
// topic of the same name (its README, "Topic recreation": it is refused until
// purged from the client), so going on would convert nothing more. The
// broker drops the group's offsets of a deleted topic: a restart reads the
// new topic from its start.
func recreated(what, topic string, err error) error {
	return &bounded{fmt.Errorf("bridge: %s: topic %s was deleted and recreated while the bridge ran, and the client does not read the new topic; restart the bridge to read it from its start: %w", what, topic, err)}
}

// warn logs an error the bridge continues after (Config.Logger), with why
// it may.
func (b *bridge) warn(err error, why string) {
	attrs := []any{"error", safeErr(err)}
	if why != "" {
		attrs = append(attrs, "why", why)
	}
	b.cfg.Logger.Warn("continuing after an error", attrs...)
}

// informational reports a fetch error kgo recovers from on its own, which
// the bridge continues after (as kgo's Fetches.Errors documents them):
//   - *kgo.ErrDataLoss: the log shrank below the consumed offset (a
//     truncation, a topic deleted and recreated on a broker without topic
//     IDs); the client has reset to a valid offset and consumes on. Records may have been lost upstream;
//     the bridge cannot bring them back.
//   - *kgo.ErrGroupSession: the member lost its group session (it was
//     kicked after a batch longer than the session, or could not reach the
//     coordinator) and the client rejoins; unless the cause is an
//     authorization or authentication refusal, which rejoining cannot fix,
//     or FENCED_INSTANCE_ID: another instance took over the static
//     membership ID (Config.InstanceID), and rejoining under it would fence
//     that one in turn, the two taking the partitions from each other.
//   - a retriable kerr.Error (kgo strips most of these itself); not
//     UNKNOWN_TOPIC_ID, which fetchErr takes first (see recreated).
//
// Everything else is fatal: non-retriable broker errors (authorization, an
// unsupported version), *kgo.ErrDecompressTooLarge (the partition is not
// fetched again), and untyped errors (a batch that does not parse: data
// corruption; a failed offset validation).
func informational(err error) bool {
	var loss *kgo.ErrDataLoss
	var session *kgo.ErrGroupSession
	var ke *kerr.Error
	switch {
	case errors.As(err, &loss):
		return true
	case errors.As(err, &session):
		return !refused(session.Err) && !errors.Is(session.Err, kerr.FencedInstanceID)
	case errors.As(err, &ke):
		return ke.Retriable
	}
	return false
}

// refused reports an authorization or authentication refusal.
func refused(err error) bool {
	for _, e := range []error{kerr.GroupAuthorizationFailed, kerr.TopicAuthorizationFailed,
		kerr.ClusterAuthorizationFailed, kerr.TransactionalIDAuthorizationFailed,
		kerr.SaslAuthenticationFailed, kerr.DelegationTokenAuthorizationFailed} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// commitErr returns the error that stops the bridge after an at-least-once
// commit of the records data (the batch's data records) failed with err,
// or nil when the bridge goes on: the group moved on without this member's
// generation (groupMovedOn), which is counted and logged
// (Summary.CommitWarnings).
//
// Going on loses nothing. The batch's output was produced and acknowledged
// before the commit; its offsets stay uncommitted (kgo updates its view of
// the committed offsets only from a partition answered without an error,
// and the bridge commits by record, not from that view), so whoever has a
// partition next reads its records again from the last committed offset
// (duplicates, as at-least-once allows), and a partition this member keeps
// through the rejoin is fetched on from where it was, its next batch's
// commit covering this one's records too. The client rejoins by itself:
// kgo rejoins at once after ILLEGAL_GENERATION or UNKNOWN_MEMBER_ID from a
// commit, and after REBALANCE_IN_PROGRESS its heartbeat rejoins; a
// rebalance waits for the loop's AllowRebalance (BlockRebalanceOnPoll),
// after this batch.
func (b *bridge) commitErr(err error, recs []*kgo.Record) error {
	n := len(dataRecords(recs))
	switch {
	case groupMovedOn(err):
		b.commitWarnings.Add(1)
		b.warn(fmt.Errorf("bridge: committing offsets of %d records: %w", n, err),
			"the group moved on; the records were produced, and the partitions' next owner may read them again")
		return nil
	case errors.Is(err, kerr.UnknownTopicID):
		return recreated(fmt.Sprintf("committing offsets of %d records", n), batchTopics(recs), err)
	case errors.Is(err, kerr.FencedInstanceID):
		return fmt.Errorf("bridge: committing offsets: another instance took over instance ID %q, this one stops rather than fence it in turn: %w", b.cfg.InstanceID, err)
	}
	return &bounded{fmt.Errorf("bridge: committing offsets of %d records: %w", n, err)}
}

// batchTopics names the topics of recs, quoted: "a" or one of "a", "b".
func batchTopics(recs []*kgo.Record) string {
	var topics []string
	seen := map[string]bool{}
	for _, r := range recs {
		if !seen[r.Topic] {
			seen[r.Topic] = true
			topics = append(topics, fmt.Sprintf("%q", r.Topic))
		}
	}
	if len(topics) == 1 {
		return topics[0]
	}
	return "one of " + strings.Join(topics, ", ")
}

// groupMovedOn reports a commit the group refused because it had moved on
// without this member's generation: the member was fenced by a new
// generation (ILLEGAL_GENERATION), removed from the group
// (UNKNOWN_MEMBER_ID: its session expired, as after a batch longer than
// the session timeout), or the group is rebalancing
// (REBALANCE_IN_PROGRESS), or, under KIP-848's consumer protocol, the
// member's epoch is older than the coordinator's (STALE_MEMBER_EPOCH: the
// next-generation form of ILLEGAL_GENERATION; the member learns its new
// epoch from its next heartbeat; kgo retries such a commit itself while
// the epoch changes, and returns the error when it did not). Not
// FENCED_INSTANCE_ID: another instance took over the static membership ID,
// and rejoining would fence that one.
func groupMovedOn(err error) bool {
	return errors.Is(err, kerr.IllegalGeneration) || errors.Is(err, kerr.UnknownMemberID) ||
		errors.Is(err, kerr.RebalanceInProgress) || errors.Is(err, kerr.StaleMemberEpoch)
}
