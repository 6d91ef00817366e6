package io.gpupool.collector.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.collector.TestFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class XidMonitorTest {

    private static final String GPU4 = "GPU-509665ad-b600-ac93-3616-d754b23d636d";

    @Test
    void realKernelLogGivesFiveXid119OnTheGpuAt9b() {
        final XidMonitor monitor = new XidMonitor(new FileTailSource(TestFiles.path("kernel/dmesg-with-xid-119.log"), false));
        monitor.knowGpu("00000000:9B:00.0", GPU4);
        final Map<String, List<XidEvent>> xids = monitor.drain();
        assertThat(xids).containsOnlyKeys(GPU4);
        assertThat(xids.get(GPU4)).hasSize(5).allMatch(e -> e.xid() == 119);
        final XidEvent first = xids.get(GPU4).get(0);
        assertThat(first.pciBusId()).isEqualTo("0000:9b:00.0");
        assertThat(first.pid()).isEqualTo(2024380L);
        assertThat(first.process()).isEqualTo("nvidia-smi");
        assertThat(first.message()).startsWith("Timeout after 6s of waiting for RPC response from GPU4 GSP!");
        assertThat(xids.get(GPU4).get(4).process()).isEqualTo("gpud");
        assertThat(monitor.drain()).as("drained: nothing twice").isEmpty();
    }

    @Test
    void tailsAGrowingFileIncrementallyAndHoldsBackAHalfWrittenLine(@TempDir final Path dir) throws Exception {
        final Path log = dir.resolve("kmsg.log");
        Files.writeString(log, "4,100,5,-;NVRM: Xid (PCI:0000:9b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n");
        final XidMonitor monitor = new XidMonitor(new FileTailSource(log, false));
        monitor.knowGpu("00000000:9B:00.0", GPU4);
        assertThat(monitor.drain().get(GPU4)).extracting(XidEvent::xid).containsExactly(79);
        append(log, "Feb 23 16:24:18 host kernel: NVRM: Xid (PCI:0000:1a:00): 48, pid=77, name=python, An uncorrectable double bit error");
        assertThat(monitor.drain()).as("no newline yet").isEmpty();
        append(log, "\n");
        final Map<String, List<XidEvent>> next = monitor.drain();
        assertThat(next).as("unknown GPU: filed under its bus id").containsOnlyKeys("0000:1a:00.0");
        assertThat(next.get("0000:1a:00.0").get(0).xid()).isEqualTo(48);
    }

    @Test
    void aTruncatedLogIsReadFromItsStart(@TempDir final Path dir) throws Exception {
        final Path log = dir.resolve("kern.log");
        Files.writeString(log, "noise line that is long enough to matter\nNVRM: Xid (PCI:0000:9b:00): 31, pid=1, name=a, mmu fault\n");
        final XidMonitor monitor = new XidMonitor(new FileTailSource(log, false));
        assertThat(monitor.drain()).hasSize(1);
        Files.writeString(log, "NVRM: Xid (PCI:0000:9b:00): 13, x\n");
        assertThat(monitor.drain().get("0000:9b:00.0")).extracting(XidEvent::xid).containsExactly(13);
    }

    @Test
    void busIdSpellingsAreOneAddress() {
        assertThat(PciBusId.normalise("00000000:9B:00.0")).isEqualTo("0000:9b:00.0");
        assertThat(PciBusId.normalise("0000:9b:00")).isEqualTo("0000:9b:00.0");
        assertThat(PciBusId.normalise("PCI:0000:9b:00")).isEqualTo("0000:9b:00.0");
        assertThat(PciBusId.normalise("9b:00.0")).isEqualTo("0000:9b:00.0");
        assertThat(PciBusId.normaliseOrNull("[N/A]")).isNull();
    }

    private static void append(final Path file, final String text) throws Exception {
        Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    }
}
