// A* over (head x, head y, body direction code): f = steps + Manhattan distance of
// the head to the exit (never more than the steps still needed); a state is closed
// when it leaves the priority queue, and the answer is its g when its head is on (1,1).
// First a flood fill from the exit over the stones: if the head's cell is not reached,
// the answer is -1 without searching (else A* would expand every reachable state).
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <queue>
#include <vector>
using namespace std;

int n, m, L, K;
bool stone[22][22];
bool closed_[21][21][1 << 14];
int dx[4] = {-1, 1, 0, 0}, dy[4] = {0, 0, -1, 1};
struct Node {
    int f, g, x, y, code;
    bool operator<(const Node& o) const { return f != o.f ? f > o.f : g < o.g; }
};

int getdir(int x1, int y1, int x2, int y2) {  // direction from (x1,y1) to (x2,y2)
    for (int i = 0; i < 4; i++)
        if (x1 + dx[i] == x2 && y1 + dy[i] == y2) return i;
    return -1;
}

bool seen[22][22];

bool exit_reachable(int sx, int sy) {
    memset(seen, 0, sizeof seen);
    vector<pair<int, int> > st(1, make_pair(1, 1));
    seen[1][1] = true;
    while (!st.empty()) {
        int x = st.back().first, y = st.back().second;
        st.pop_back();
        for (int i = 0; i < 4; i++) {
            int nx = x + dx[i], ny = y + dy[i];
            if (nx < 1 || ny < 1 || nx > n || ny > m || stone[nx][ny] || seen[nx][ny]) continue;
            seen[nx][ny] = true;
            st.push_back(make_pair(nx, ny));
        }
    }
    return seen[sx][sy];
}

int astar(int sx, int sy, int code) {
    if (sx == 1 && sy == 1) return 0;
    if (!exit_reachable(sx, sy)) return -1;
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= m; j++) memset(closed_[i][j], 0, sizeof(bool) << (2 * (L - 1)));
    int mask = (1 << (2 * (L - 1))) - 1;
    priority_queue<Node> pq;
    pq.push({sx - 1 + sy - 1, 0, sx, sy, code});
    while (!pq.empty()) {
        Node cur = pq.top(); pq.pop();
        if (closed_[cur.x][cur.y][cur.code]) continue;
        closed_[cur.x][cur.y][cur.code] = true;
        if (cur.x == 1 && cur.y == 1) return cur.g;
        int bx[8], by[8];
        bx[0] = cur.x, by[0] = cur.y;
        for (int i = 1; i < L; i++) {
            int d = (cur.code >> (2 * (i - 1))) & 3;
            bx[i] = bx[i - 1] + dx[d];
            by[i] = by[i - 1] + dy[d];
        }
        for (int i = 0; i < 4; i++) {
            int nx = cur.x + dx[i], ny = cur.y + dy[i];
            if (nx < 1 || ny < 1 || nx > n || ny > m || stone[nx][ny]) continue;
            bool hit = false;
            for (int j = 1; j < L; j++)
                if (bx[j] == nx && by[j] == ny) { hit = true; break; }
            if (hit) continue;
            int nc = ((cur.code << 2) | (i ^ 1)) & mask;
            if (closed_[nx][ny][nc]) continue;
            pq.push({cur.g + 1 + nx - 1 + ny - 1, cur.g + 1, nx, ny, nc});
        }
    }
    return -1;
}

int main() {
    int cas = 0;
    while (scanf("%d %d %d", &n, &m, &L) == 3 && (n || m || L)) {
        int x[8], y[8];
        for (int i = 0; i < L; i++) scanf("%d %d", &x[i], &y[i]);
        memset(stone, 0, sizeof stone);
        scanf("%d", &K);
        for (int i = 0; i < K; i++) {
            int a, b;
            scanf("%d %d", &a, &b);
            stone[a][b] = true;
        }
        int code = 0;
        for (int i = L - 1; i >= 1; i--) code = (code << 2) | getdir(x[i - 1], y[i - 1], x[i], y[i]);
        printf("Case %d: %d\n", ++cas, astar(x[0], y[0], code));
    }
    return 0;
}
