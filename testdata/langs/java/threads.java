// Accepted with many threads: THREADS workers alive at once (a barrier holds them all), each
// summing its share of the pairs. THREADS plus the JVM's own threads fit the process limit.
import java.io.*;
import java.util.*;
import java.util.concurrent.*;

public class Threads {
    static final int THREADS = 40;

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        int t = Integer.parseInt(in.readLine().trim());
        long[] a = new long[t], b = new long[t], sum = new long[t];
        for (int i = 0; i < t; i++) {
            StringTokenizer st = new StringTokenizer(in.readLine());
            a[i] = Long.parseLong(st.nextToken());
            b[i] = Long.parseLong(st.nextToken());
        }
        CyclicBarrier together = new CyclicBarrier(THREADS);
        Thread[] workers = new Thread[THREADS];
        for (int w = 0; w < THREADS; w++) {
            final int id = w;
            workers[w] = new Thread(() -> {
                try { together.await(); } catch (Exception e) { throw new RuntimeException(e); }
                for (int i = id; i < t; i += THREADS) sum[i] = a[i] + b[i];
            });
            workers[w].setDaemon(true);
            workers[w].start();
        }
        for (Thread w : workers) w.join();
        StringBuilder sb = new StringBuilder();
        for (long s : sum) sb.append(s).append('\n');
        System.out.print(sb);
    }
}
