package io.gpupool.localstack.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ChildJvmTest {

    @Test
    void extraFlagsAreSplitAtWhitespaceAndNoneWhenUnsetOrBlank() {
        assertThat(ChildJvm.extraFlags(null)).isEmpty();
        assertThat(ChildJvm.extraFlags("  \t ")).isEmpty();
        assertThat(ChildJvm.extraFlags(" -XX:TieredStopAtLevel=1   -Xss512k\t-XX:+UseSerialGC "))
                .containsExactly("-XX:TieredStopAtLevel=1", "-Xss512k", "-XX:+UseSerialGC");
    }

    @Test
    void extraFlagsComeAfterTheHeapAndLoggingFlagsAndBeforeTheClasspath() {
        final List<String> command = ChildJvm.command("512m", List.of("-Dlog4j2.configurationFile=f"),
                List.of("-Xmx1g", "-XX:TieredStopAtLevel=1"), "kafka.Main", List.of("server.properties"));
        final int heap = command.indexOf("-Xmx512m");
        final int logging = command.indexOf("-Dlog4j2.configurationFile=f");
        final int extraHeap = command.indexOf("-Xmx1g");
        final int tiered = command.indexOf("-XX:TieredStopAtLevel=1");
        final int classpath = command.indexOf("-cp");
        // a later -Xmx wins in HotSpot, so the extra flags can override the stack's heap
        assertThat(heap).isLessThan(logging);
        assertThat(logging).isLessThan(extraHeap);
        assertThat(extraHeap).isLessThan(tiered);
        assertThat(tiered).isLessThan(classpath);
        assertThat(command.subList(command.size() - 2, command.size())).containsExactly("kafka.Main", "server.properties");
    }
}
