package io.gpupool.collector.live;

import io.gpupool.collector.dcgm.DcgmScrapeMapper;
import io.gpupool.collector.gpu.GpuSnapshot;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Scrapes a dcgm-exporter's /metrics endpoint. */
public final class DcgmHttpSource implements GpuSource {
    private final URI url;
    private final Duration timeout;
    private final HttpClient client;

    public DcgmHttpSource(final URI url, final Duration timeout) {
        this.url = url;
        this.timeout = timeout;
        this.client = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    @Override
    public String name() {
        return "dcgm";
    }

    @Override
    public GpuSnapshot read() throws IOException, InterruptedException {
        final HttpResponse<String> r = client.send(HttpRequest.newBuilder(url).timeout(timeout).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("dcgm-exporter at " + url + " answered HTTP " + r.statusCode());
        }
        return DcgmScrapeMapper.map(url.toString(), r.body());
    }
}
