// The main class: the only file declaring main (no Main.java).
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.StringTokenizer;

public class Solve {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(in.readLine().trim());
        StringTokenizer st = new StringTokenizer(in.readLine());
        Adder a = new Adder();
        for (int i = 0; i < n; i++) a.add(Long.parseLong(st.nextToken()));
        System.out.println(a.total());
    }
}
