// Wrong answer: the sum of the first pair only, on every line.
import java.util.*;

public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        int t = in.nextInt();
        long first = in.nextLong() + in.nextLong();
        for (int i = 0; i < t; i++) System.out.println(first);
    }
}
