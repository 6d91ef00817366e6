package io.gpupool.cli.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpupool.avro.TopologyScope;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Trace replay input: the real Philly and openb files (first 40 rows) read by header, in arrival order. */
class TraceFilesTest {

    @TempDir
    Path dir;

    private static Path resource(final String name) throws URISyntaxException {
        return Path.of(TraceFilesTest.class.getResource("/traces/" + name).toURI());
    }

    @Test
    void phillyJobsArriveInTimestampOrderWithTheirRealDurations() throws Exception {
        final List<TimedJob> jobs = TraceFiles.read(resource("philly_head.csv"), "default", "t", 0);
        assertThat(jobs).hasSize(40);
        assertThat(jobs.get(0).arrivalMillis()).isZero();
        for (int i = 1; i < jobs.size(); i++) {
            assertThat(jobs.get(i).arrivalMillis()).isGreaterThanOrEqualTo(jobs.get(i - 1).arrivalMillis());
        }
        // Line 4 of the file: 2017-09-29 07:58:32, 860662 s, 1 GPU, cluster 6c71a0: the earliest submit of the slice.
        final TimedJob first = jobs.get(0);
        assertThat(first.jobId()).isEqualTo("philly-t-00004");
        assertThat(first.request().getSimulatedRuntimeMillis()).isEqualTo(860_662_000L);
        assertThat(first.request().getRuntimeEstimateMillis()).as("the scheduler must not see the real duration").isNull();
        assertThat(first.request().getTenant()).isEqualTo("vc-6c71a0");
        assertThat(first.request().getGpusPerNode()).isEqualTo(1);
        assertThat(TraceFiles.read(resource("philly_head.csv"), "default", "t", 5)).hasSize(5);
        // Skipping the first 9 days of trace time drops the early submits and re-bases the rest at 0.
        final List<TimedJob> later = TraceFiles.read(resource("philly_head.csv"), "default", "t", 0, 9L * 86_400_000L);
        assertThat(later).hasSize(39);
        assertThat(later.get(0).arrivalMillis()).isZero();
        assertThat(later).noneMatch(j -> j.jobId().equals("philly-t-00004"));
    }

    @Test
    void phillyJobsOfMoreThanEightGpusBecomeGangsOfWholeNodes() throws Exception {
        final Path f = dir.resolve("philly.csv");
        Files.writeString(f, "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-01 00:00:10,60.0,16,960.0,vc1\n"
                + "2017-10-01 00:00:00,30.0,4,120.0,vc1\n");
        final List<TimedJob> jobs = TraceFiles.read(f, "default", "t", 0);
        assertThat(jobs.get(0).request().getGpusPerNode()).isEqualTo(4);
        assertThat(jobs.get(1).arrivalMillis()).isEqualTo(10_000);
        assertThat(jobs.get(1).request().getNodes()).isEqualTo(2);
        assertThat(jobs.get(1).request().getGpusPerNode()).isEqualTo(8);
        assertThat(jobs.get(1).request().getTopology()).isEqualTo(TopologyScope.SAME_LEAF);
    }

    @Test
    void openbPodsShareGpusByMilliAndMapQosToPriorityClasses() throws Exception {
        final List<TimedJob> jobs = TraceFiles.read(resource("openb_pod_list_head.csv"), "default", "t", 0);
        assertThat(jobs).as("the 2 CPU-only pods are skipped").hasSize(38);
        final TimedJob share = jobs.stream().filter(j -> j.jobId().equals("openb-t-openb-pod-0001")).findFirst().orElseThrow();
        // openb-pod-0001,6000,12288,1,460,,LS,Running,427061,12902960,427061
        assertThat(share.request().getGpuMilli()).isEqualTo(460);
        assertThat(share.request().getCpuMilliPerNode()).isEqualTo(6000L);
        assertThat(share.request().getMemoryMiBPerNode()).isEqualTo(12288L);
        assertThat(share.request().getPriorityClass()).isEqualTo("production");
        assertThat(share.arrivalMillis()).isEqualTo(427_061_000L);
        assertThat(share.request().getSimulatedRuntimeMillis()).isEqualTo((12_902_960L - 427_061L) * 1000);
        assertThat(jobs.stream().filter(j -> "best-effort".equals(j.request().getPriorityClass()))
                .allMatch(j -> j.request().getPreemptible())).isTrue();
        assertThat(jobs.stream().anyMatch(j -> j.request().getGpusPerNode() == 8 && j.request().getGpuMilli() == null)).isTrue();
    }

    @Test
    void anUnknownOrMissingFileSaysWhichFormatsWork() throws Exception {
        final Path f = dir.resolve("other.csv");
        Files.writeString(f, "a,b\n1,2\n");
        assertThatThrownBy(() -> TraceFiles.read(f, "default", "t", 0)).hasMessageContaining("unknown format")
                .hasMessageContaining("timestamp,duration,num_gpus,cluster");
        assertThatThrownBy(() -> TraceFiles.read(dir.resolve("nope.csv"), "default", "t", 0)).hasMessageContaining("is not a file");
        final Path bad = dir.resolve("bad.csv");
        Files.writeString(bad, "timestamp,duration,num_gpus,gpu_time,cluster\nyesterday,1,1,1,x\n");
        assertThatThrownBy(() -> TraceFiles.read(bad, "default", "t", 0)).hasMessageContaining("line 2")
                .hasMessageContaining("yyyy-MM-dd HH:mm:ss");
    }
}
