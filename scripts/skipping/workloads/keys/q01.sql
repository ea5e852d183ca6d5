select sum(l_quantity) as qty from lineitem where l_orderkey between 100000 and 112000
