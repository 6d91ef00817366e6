package io.gpupool.sink.ledger;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.sink.apply.JobPart;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One record of the ledger. {@code kind} is {@code applied} (a command took effect; ALLOCATE records
 * carry the part so it can be resumed), {@code started} (the part runs, with its pid), {@code outcome}
 * (how it ended, before its event is sent), {@code ended} (the part is settled and reported) or
 * {@code id} (only a command id, kept by compaction).
 *
 * <p>{@code placementId} is the part's placement on part records and the named placement on a stop's
 * {@code applied} record. Records written before placements existed have none; a part's placement is
 * then its ALLOCATE's decision id (the same value), and a stop without one stops whatever part it finds.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record LedgerEntry(String kind, String commandId, String type, String jobId, String nodeId, String decisionId,
                          String placementId, Long at, Long pid, String reason, Part part, Event event) {

    static final String APPLIED = "applied";
    static final String STARTED = "started";
    static final String OUTCOME = "outcome";
    static final String ENDED = "ended";
    static final String ID = "id";

    /** A field a newer sink added must not make an older one refuse its ledger. */
    private static final ObjectMapper JSON = new ObjectMapper()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /** The record as one line of JSON (Jackson writes no line breaks without pretty printing). */
    byte[] toJson() {
        try {
            return JSON.writeValueAsBytes(this);
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot write ledger record " + commandId, e);
        }
    }

    static LedgerEntry fromJson(final byte[] bytes, final int offset, final int length) throws IOException {
        final LedgerEntry e = JSON.readValue(bytes, offset, length, LedgerEntry.class);
        if (e == null || e.kind() == null || e.commandId() == null) {
            throw new IOException("a ledger record needs a kind and a commandId");
        }
        return e;
    }

    static LedgerEntry idOnly(final String commandId) {
        return new LedgerEntry(ID, commandId, null, null, null, null, null, null, null, null, null, null);
    }

    /**
     * The terminal event of a part (COMPLETED, FAILED, EVICTED, RELEASED), enough to send it again
     * after a crash; {@code placementId} is null in outcomes written before events carried it.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Event(String type, String commandId, String decisionId, String placementId, Integer exitCode,
                        String reason) {
    }

    /** A {@link JobPart} in plain JSON types. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Part(String jobName, String tenant, List<Integer> gpuIndices, List<String> gpuUuids, int rank,
                       List<String> gangNodes, List<String> command, List<String> args, Map<String, String> env,
                       String workingDir, Long runtimeMillis) {

        static Part of(final JobPart p) {
            return new Part(p.jobName(), p.tenant(), p.gpuIndices(), p.gpuUuids(), p.rank(), p.gangNodes(), p.command(),
                    p.args(), p.env(), p.workingDir().orElse(null), p.runtimeMillis().orElse(null));
        }

        JobPart toPart(final String jobId, final String nodeId, final String decisionId, final String placementId,
                       final String commandId) {
            return new JobPart(jobId, nodeId, decisionId, placementId == null ? decisionId : placementId, commandId,
                    jobName, tenant, orEmpty(gpuIndices), orEmpty(gpuUuids), rank, orEmpty(gangNodes), orEmpty(command),
                    orEmpty(args), env == null ? Map.of() : env, Optional.ofNullable(workingDir),
                    Optional.ofNullable(runtimeMillis));
        }

        private static <T> List<T> orEmpty(final List<T> list) {
            return list == null ? List.of() : list;
        }
    }
}
