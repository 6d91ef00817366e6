package io.gpupool.cli.submit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class GpuModelsTest {

    private static final List<String> POOL = List.of("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-40GB");

    @Test
    void aShortAliasMatchesTheOneModelWhoseWordsItStarts() {
        final GpuModels.Resolved r = GpuModels.resolve(List.of("H100", "a100-80gb"), POOL);
        assertThat(r.models()).containsExactly("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB");
        assertThat(r.notes()).containsExactly("model H100 -> NVIDIA H100 80GB HBM3", "model a100-80gb -> NVIDIA A100-SXM4-80GB");
    }

    @Test
    void aFullNameIsKeptAsItIsWithoutANote() {
        final GpuModels.Resolved r = GpuModels.resolve(List.of("nvidia a100-sxm4-40gb"), POOL);
        assertThat(r.models()).containsExactly("NVIDIA A100-SXM4-40GB");
        assertThat(GpuModels.resolve(List.of("NVIDIA H100 80GB HBM3"), POOL).notes()).isEmpty();
    }

    @Test
    void anAmbiguousAliasIsRefusedWithTheCandidates() {
        assertThatThrownBy(() -> GpuModels.resolve(List.of("A100"), POOL))
                .hasMessageContaining("'A100' matches 2 models")
                .hasMessageContaining("NVIDIA A100-SXM4-40GB, NVIDIA A100-SXM4-80GB");
    }

    @Test
    void anUnknownNameIsPassedOnForThePoolCheckToJudge() {
        assertThat(GpuModels.resolve(List.of("B200"), POOL).models()).containsExactly("B200");
    }

    @Test
    void withoutThePoolsModelsTheCommonNamesAreUsed() {
        assertThat(GpuModels.resolve(List.of("L40S"), GpuModels.COMMON).models()).containsExactly("NVIDIA L40S");
        assertThat(GpuModels.resolve(List.of("h200"), GpuModels.COMMON).models()).containsExactly("NVIDIA H200");
    }
}
