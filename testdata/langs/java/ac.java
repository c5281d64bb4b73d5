// Accepted. The public class is not called Main: the judge finds it from the source.
import java.io.*;
import java.util.*;

public class APlusB {
    static final class Pair { final long a, b; Pair(long a, long b) { this.a = a; this.b = b; } }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        int t = Integer.parseInt(in.readLine().trim());
        List<Pair> pairs = new ArrayList<>();
        for (int i = 0; i < t; i++) {
            StringTokenizer st = new StringTokenizer(in.readLine());
            pairs.add(new Pair(Long.parseLong(st.nextToken()), Long.parseLong(st.nextToken())));
        }
        StringBuilder sb = new StringBuilder();
        for (Pair p : pairs) sb.append(p.a + p.b).append('\n');
        System.out.print(sb);
    }
}
